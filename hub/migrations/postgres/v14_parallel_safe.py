"""v13 → v14 on PostgreSQL: the hub's SQL functions, each marked as PostgreSQL requires.

- ``jira_utc`` (a Jira time in the hub's UTC format, or NULL) caught its cast's errors in an
  ``EXCEPTION`` block, which starts a subtransaction, yet was marked ``PARALLEL SAFE``: once a table
  was large enough for PostgreSQL to plan a parallel scan (``created > -7d``, the list sorted by
  Created, a facet over ``created``), the query failed with "cannot start subtransactions during a
  parallel operation". It is written again without an ``EXCEPTION`` block: the parts are checked
  by pattern and arithmetic before a value is made of them, so nothing can raise, and it stays
  ``IMMUTABLE PARALLEL SAFE`` (now ``STRICT`` too). It reads what ``hub.clock.jira_to_utc`` (CPython's
  ``datetime.fromisoformat``, which SQLite's hub calls) reads, and answers the same:
  ``tests/test_jql_postgres.py`` holds the two to each other on many inputs.
- ``jira_number(jsonb)``: a custom field's value as SQLite's ``CAST(… AS REAL)`` reads the value
  ``json_extract`` gives: a JSON number as it is, ``true``/``false`` as 1/0, a string by its longest
  leading decimal number (leading spaces skipped; none: 0, as ``'abc'``), an array or object
  (SQLite's JSON text) 0, JSON null and no value NULL. ``CAST(text AS DOUBLE PRECISION)`` raised for
  any text that is not a number (a 503), where SQLite answers 0. ``sqlite_real(text)`` is that
  cast of a text, which ``jira_number`` calls.

A step is frozen once released: the functions' text is here, not read from elsewhere.
"""

from __future__ import annotations

VERSION = 14

JIRA_UTC = r"""
CREATE OR REPLACE FUNCTION jira_utc(t TEXT) RETURNS TEXT
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
  s TEXT;
  sep INT;
  week INT;
  weekday INT;
  y INT;
  mo INT;
  d INT;
  day DATE;
  tm TEXT;
  cut INT;
  x TEXT;
  pend INT;
  p INT;
  k INT;
  c TEXT;
  part TEXT;
  has_sep BOOLEAN;
  junk BOOLEAN;
  f INT[];
  clock INT[];
  zone INT[] := ARRAY[0, 0, 0, 0];
  sign INT := 1;
  offset_us BIGINT := 0;
  moment TIMESTAMP;
  -- What Python's str.isspace() holds, which str.strip() strips.
  spaces CONSTANT TEXT := '[\t\n\v\f\r\u001c-\u0020\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]';
BEGIN
  -- The form Jira writes, read at once; any other goes the long way below.
  IF t ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[+-][0-9]{4}$' THEN
    y := substr(t, 1, 4)::int;
    mo := substr(t, 6, 2)::int;
    d := substr(t, 9, 2)::int;
    clock := ARRAY[substr(t, 12, 2)::int, substr(t, 15, 2)::int, substr(t, 18, 2)::int, substr(t, 21, 3)::int * 1000];
    zone := ARRAY[substr(t, 25, 2)::int, substr(t, 27, 2)::int, 0, 0];
    sign := CASE substr(t, 24, 1) WHEN '-' THEN -1 ELSE 1 END;
  ELSE
    -- Python's str.strip().
    s := regexp_replace(t, '^' || spaces || '+|' || spaces || '+$', '', 'g');
    -- Where the date ends and the one separating character is (CPython's
    -- _find_isoformat_datetime_separator): YYYY-MM-DD, YYYYMMDD, YYYY-Www[-D], YYYYWww[D].
    IF substr(s, 5, 1) = '-' THEN
      IF substr(s, 6, 1) = 'W' AND substr(s, 9, 1) = '-' THEN
        sep := CASE WHEN substr(s, 11, 1) ~ '^[0-9]$' THEN 8 ELSE 10 END;
      ELSIF substr(s, 6, 1) = 'W' THEN
        sep := 8;
      ELSE
        sep := 10;
      END IF;
    ELSIF substr(s, 5, 1) = 'W' THEN
      k := 7 + length(substring(substr(s, 8) FROM '^[0-9]*'));
      sep := CASE WHEN k < 9 THEN k WHEN mod(k, 2) = 0 THEN 7 ELSE 8 END;
    ELSE
      sep := 8;
    END IF;
    -- No time after the date: no offset, so no instant.
    IF length(s) < sep + 2 THEN
      RETURN NULL;
    END IF;
    -- The date's digits where its form has them (captures in a regular expression cost a
    -- hundred times a plain match).
    part := substr(s, 1, sep);
    IF part ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' OR part ~ '^[0-9]{8}$' THEN
      y := substr(part, 1, 4)::int;
      mo := substr(part, 5 + (sep - 8) / 2, 2)::int;
      d := substr(part, sep - 1, 2)::int;
    ELSIF part ~ '^[0-9]{4}(-W[0-9]{2}(-[0-9])?|W[0-9]{2}[0-9]?)$' THEN
      y := substr(part, 1, 4)::int;
      k := strpos(part, 'W');
      week := substr(part, k + 1, 2)::int;
      weekday := coalesce(nullif(substr(part, k + 3 + (k - 5)), ''), '1')::int;
    ELSE
      RETURN NULL;
    END IF;
    -- The time, up to its offset: the first Z, + or - after the separator.
    tm := substr(s, sep + 2);
    cut := length(substring(tm FROM '^[^Z+-]*'));
    IF cut = length(tm) THEN
      RETURN NULL;
    END IF;
    -- The time (pass 1: the offset's sign stands where it ends) and then the offset (pass 2)
    -- as CPython's parse_hh_mm_ss_ff reads each: HH[:?MM[:?SS]] with one separator or none,
    -- then [.,]fraction (six digits kept, more skipped). After the time one character more
    -- is let pass; after the offset nothing.
    FOR pass IN 1..2 LOOP
      IF pass = 1 THEN
        x := substr(tm, 1, cut + 1);
        pend := cut;
      ELSIF substr(tm, cut + 1, 1) = 'Z' THEN
        IF length(tm) <> cut + 1 THEN
          RETURN NULL;
        END IF;
        EXIT;
      ELSE
        x := substr(tm, cut + 2);
        pend := length(x);
        sign := CASE substr(tm, cut + 1, 1) WHEN '-' THEN -1 ELSE 1 END;
      END IF;
      f := ARRAY[0, 0, 0, 0];
      p := 0;
      junk := NULL;
      FOR i IN 1..3 LOOP
        part := substr(x, p + 1, 2);
        IF part !~ '^[0-9]{2}$' THEN
          RETURN NULL;
        END IF;
        f[i] := part::int;
        c := substr(x, p + 3, 1);
        p := p + 3;
        IF i = 1 THEN
          has_sep := c = ':';
        END IF;
        IF p >= pend THEN
          -- CPython reads bytes: a character of several is never one let pass.
          IF c ~ '[^\u0001-\u007f]' THEN
            RETURN NULL;
          END IF;
          junk := c <> '';
          EXIT;
        ELSIF has_sep AND c = ':' THEN
          CONTINUE;
        ELSIF c IN ('.', ',') THEN
          EXIT;
        ELSIF has_sep THEN
          RETURN NULL;
        END IF;
        p := p - 1;
      END LOOP;
      IF junk IS NULL THEN
        k := least(pend - p, 6);
        part := substr(x, p + 1, k);
        IF part !~ '^[0-9]*$' THEN
          RETURN NULL;
        END IF;
        f[4] := rpad(part, 6, '0')::int;
        p := p + k + length(substring(substr(x, p + k + 1) FROM '^[0-9]*'));
        junk := p < length(x);
      END IF;
      IF pass = 1 THEN
        clock := f;
      ELSIF junk THEN
        RETURN NULL;
      ELSE
        zone := f;
      END IF;
    END LOOP;
  END IF;
  -- The date: a day of the calendar, or of an ISO week (week 53 only in a year that has one).
  IF y < 1 THEN
    RETURN NULL;
  ELSIF week IS NOT NULL THEN
    IF weekday NOT BETWEEN 1 AND 7 OR week NOT BETWEEN 1 AND 53 OR week = 53 AND NOT (
        extract(isodow FROM make_date(y, 1, 1)) = 4 OR extract(isodow FROM make_date(y, 1, 1)) = 3
        AND mod(y, 4) = 0 AND (mod(y, 100) <> 0 OR mod(y, 400) = 0)) THEN
      RETURN NULL;
    END IF;
    day := make_date(y, 1, 4) - extract(isodow FROM make_date(y, 1, 4))::int + 1 + (week - 1) * 7 + weekday - 1;
    IF day >= DATE '10000-01-01' THEN
      RETURN NULL;
    END IF;
  ELSE
    -- (The month's days are worked out first: PL/pgSQL ends an IF's condition at its first THEN.)
    k := CASE WHEN mo = 2 AND mod(y, 4) = 0 AND (mod(y, 100) <> 0 OR mod(y, 400) = 0) THEN 29
              WHEN mo = 2 THEN 28 WHEN mo IN (4, 6, 9, 11) THEN 30 ELSE 31 END;
    IF mo NOT BETWEEN 1 AND 12 OR d NOT BETWEEN 1 AND k THEN
      RETURN NULL;
    END IF;
    day := make_date(y, mo, d);
  END IF;
  IF clock[1] > 23 OR clock[2] > 59 OR clock[3] > 59 THEN
    RETURN NULL;
  END IF;
  -- The offset: UTC when its seconds are none (its fraction is then dropped, as CPython does),
  -- else strictly within a day.
  IF zone[1] * 3600 + zone[2] * 60 + zone[3] <> 0 THEN
    offset_us := sign * ((zone[1] * 3600 + zone[2] * 60 + zone[3])::bigint * 1000000 + zone[4]);
    IF abs(offset_us) >= 86400000000 THEN
      RETURN NULL;
    END IF;
  END IF;
  moment := day + ((clock[1] * 3600 + clock[2] * 60 + clock[3])::bigint * 1000000 + clock[4] - offset_us)
                  * INTERVAL '1 microsecond';
  IF moment < TIMESTAMP '0001-01-01' OR moment >= TIMESTAMP '10000-01-01' THEN
    RETURN NULL;
  END IF;
  RETURN to_char(moment, 'YYYY-MM-DD"T"HH24:MI:SS') || '+00:00';
END
$fn$;
"""

# SQLite's CAST(text AS REAL): the longest leading decimal number, after the spaces sqlite3AtoF
# skips; none is 0. An exponent without digits is not read ('1e' is 1); beyond what a double
# holds is an infinity (as SQLite's), below 1e-300 is 0. Digits past the fortieth do not count.
SQLITE_REAL = r"""
CREATE OR REPLACE FUNCTION sqlite_real(t TEXT) RETURNS DOUBLE PRECISION
  LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $fn$
DECLARE
  s TEXT := ltrim(t, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13));
  lead TEXT := substring(s FROM '^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)');
  e TEXT;
  sign INT := 1;
  digits TEXT;
  power INT;
  k INT;
  value NUMERIC;
BEGIN
  IF lead IS NULL THEN
    RETURN 0;
  END IF;
  e := substring(substr(s, length(lead) + 1) FROM '^[eE][+-]?[0-9]+');
  IF left(lead, 1) = '-' THEN
    sign := -1;
  END IF;
  lead := ltrim(lead, '+-');
  -- The value is 0.<digits> x 10^power.
  power := strpos(lead || '.', '.') - 1;
  digits := replace(lead, '.', '');
  k := length(digits) - length(ltrim(digits, '0'));
  digits := ltrim(digits, '0');
  power := power - k;
  IF digits = '' THEN
    RETURN sign * 0.0::float8;
  END IF;
  IF e IS NOT NULL THEN
    k := CASE WHEN substr(e, 2, 1) = '-' THEN -1 ELSE 1 END;
    e := ltrim(ltrim(substr(e, 2), '+-'), '0');
    power := power + k * CASE WHEN length(e) > 6 THEN 1000000 ELSE coalesce(nullif(e, ''), '0')::int END;
  END IF;
  IF power < -300 THEN
    RETURN sign * 0.0::float8;
  ELSIF power > 309 THEN
    RETURN sign * 'Infinity'::float8;
  END IF;
  value := ('0.' || left(digits, 40) || 'e' || power)::numeric;
  IF value > 1.7976931348623157e308 THEN
    RETURN sign * 'Infinity'::float8;
  END IF;
  RETURN sign * value::float8;
END
$fn$;
"""

# A number custom field's value (jsonb) as SQLite's CAST(json_extract(…) AS REAL) reads it.
JIRA_NUMBER = r"""
CREATE OR REPLACE FUNCTION jira_number(v JSONB) RETURNS DOUBLE PRECISION
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE jsonb_typeof(v)
    WHEN 'null' THEN NULL
    WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN 1.0::float8 ELSE 0.0::float8 END
    WHEN 'number' THEN sqlite_real(v #>> '{}')
    WHEN 'string' THEN sqlite_real(v #>> '{}')
    ELSE 0.0::float8 END;
"""


def apply(cur) -> None:
    """Replace ``jira_utc``; add ``sqlite_real`` and ``jira_number``."""
    for statement in (JIRA_UTC, SQLITE_REAL, JIRA_NUMBER):
        cur.execute(statement)
