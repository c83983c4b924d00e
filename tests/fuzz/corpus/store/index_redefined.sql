PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = 'CREATE INDEX runs_label ON runs(host)' WHERE name = 'runs_label';
