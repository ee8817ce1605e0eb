"""A copy of the PostgreSQL template that a test has written to, put back as the template left it.

Making a copy (``CREATE DATABASE … TEMPLATE``) writes the whole database anew, 8.6 MB of
which the system catalogues are most, and dropping one removes as many files: about 50 ms
of the machine's CPU for each test on PostgreSQL, most of it the kernel's. A copy given
back is instead emptied in place: every table's rows deleted, the template's rows put back
and its sequences set where the template's stand, in one transaction of a few milliseconds.

Only a copy whose schema is still the template's is reset. A test that changed it (a table
made or dropped, a column, an index, a trigger, a function, a setting of the database) gets
it dropped, as before: :meth:`TemplateState.reset` says False, and the caller drops it.
"""

from __future__ import annotations

from dataclasses import dataclass

# What a test could change of a database beyond its rows, as one digest: relations, columns
# with their types and defaults, indexes, constraints, triggers, functions, types, extensions
# and the database's own settings. Temporary schemas (a session's) are left out.
FINGERPRINT = """
SELECT md5(coalesce(string_agg(line, E'\\n' ORDER BY line), '')) FROM (
  SELECT 'rel ' || n.nspname || '.' || c.relname || ':' || c.relkind::text AS line
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg_temp%'
     AND n.nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL
  SELECT 'col ' || c.relname || '.' || a.attname || ':' || format_type(a.atttypid, a.atttypmod) || ':'
         || a.attnotnull::text || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
   WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
  SELECT 'index ' || pg_get_indexdef(i.indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public'
  UNION ALL
  SELECT 'constraint ' || conrelid::regclass::text || '.' || conname || ':' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL
  SELECT 'trigger ' || tgrelid::regclass::text || '.' || tgname || ':' || tgenabled::text
    FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL
  SELECT 'function ' || p.oid::regprocedure::text || ':' || md5(p.prosrc)
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'
  UNION ALL
  SELECT 'type ' || t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
   WHERE n.nspname = 'public'
  UNION ALL
  SELECT 'extension ' || extname || ' ' || extversion FROM pg_extension
  UNION ALL
  SELECT 'setting ' || array_to_string(setconfig, ',') FROM pg_db_role_setting
   WHERE setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) lines
"""
TABLES = "SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
SEQUENCES = ("SELECT quote_ident(sequencename), coalesce(last_value, start_value), last_value IS NOT NULL"
             " FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1")


@dataclass(frozen=True)
class TemplateState:
    """What a copy must hold to be as the template left it: its schema's digest, the rows of
    its tables that have any, and where its sequences stand."""

    fingerprint: str
    tables: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...], tuple[tuple, ...]], ...]
    sequences: tuple[tuple[str, int, bool], ...]

    @classmethod
    def read(cls, url: str) -> TemplateState:
        """The state of the template at ``url``."""
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            [(fingerprint,)] = conn.execute(FINGERPRINT).fetchall()
            tables = tuple(name for (name,) in conn.execute(TABLES))
            rows = []
            for table in tables:
                cursor = conn.execute(f"SELECT * FROM {table}")  # the names come quoted by quote_ident
                found = tuple(cursor.fetchall())
                if found:
                    columns = tuple(f'"{column.name}"' for column in cursor.description)
                    rows.append((table, columns, found))
            sequences = tuple(conn.execute(SEQUENCES).fetchall())
        return cls(fingerprint, tables, tuple(rows), sequences)

    def reset(self, url: str) -> bool:
        """Put the database at ``url`` back as the template left it, if its schema is still the
        template's: True; False (and nothing done) if it is not, or it cannot be reached."""
        import psycopg

        try:
            with psycopg.connect(url) as conn:
                [(fingerprint,)] = conn.execute(FINGERPRINT).fetchall()
                if fingerprint != self.fingerprint:
                    return False
                # DELETE rather than TRUNCATE: a test leaves a few rows, and TRUNCATE makes every
                # table's and index's files anew (four times the time). As a replica the session
                # fires no foreign key's trigger, so the tables go in any order.
                conn.execute("SET LOCAL session_replication_role = replica")
                for table in self.tables:
                    conn.execute(f"DELETE FROM {table}")  # the names come quoted by quote_ident
                for table, columns, rows in self.rows:
                    marks = ", ".join(["%s"] * len(columns))
                    with conn.cursor() as cursor:
                        cursor.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                                           rows)
                for sequence, value, is_called in self.sequences:
                    conn.execute("SELECT setval(%s, %s, %s)", (sequence, value, is_called))
        except psycopg.Error:
            return False
        return True
