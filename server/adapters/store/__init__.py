"""Where rooms survive a restart: the `Store` interface and its SQLite form, the schema
and its migrations, and the rows of talk and displaced tokens. Only this package speaks SQL."""
