UPDATE runs SET status = 'running', finished_at = NULL WHERE id = 2;
DELETE FROM samples WHERE idx = 0;
