UPDATE runs SET label = CAST(x'6361666ce9' AS TEXT) WHERE id = 1;
