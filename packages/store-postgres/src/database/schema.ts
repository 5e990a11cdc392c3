/** The schema version this build writes (`store_info.schema_version`). */
export const SCHEMA_VERSION = 3;

/**
 * The event catalogue (core's EVENT_CATALOG) each schema version may hold, from version 1:
 * a new catalogue raises the schema version, so an older toolledger refuses the store. The
 * PostgreSQL store arrived with toolledger 0.2.0, at catalogue 2.
 */
export const SCHEMA_EVENT_CATALOG: readonly number[] = [2, 3, 4];

/** Conversation event types (D6–D8), listed for SQL filters. */
export const CONVERSATION_TYPES_SQL =
  "('EnableToolsRequested','EnableToolsResponded','Compacted','Cleared')";

/** A PostgreSQL identifier, double-quoted (the schema name is the user's choice). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A PostgreSQL string literal. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The NOTIFY channel of a store's schema: one per schema, so two stores in one database never wake each other. */
export function channelOf(schema: string): string {
  return `toolledger:${schema}`;
}

/**
 * Migration `i` takes the schema from version `i` to `i + 1`; `s` is the quoted schema name.
 * Global positions are assigned under the row lock of `head`, held until commit: commit
 * order is position order, so a reader that has seen position N has seen every position
 * below it (see the decision log, "PostgreSQL store").
 */
export function migrations(schema: string): readonly string[] {
  const s = quoteIdent(schema);
  const channel = quoteLiteral(channelOf(schema));
  return [
    `
    CREATE TABLE ${s}.store_info (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      application text NOT NULL CHECK (application = 'toolledger'),
      schema_version integer NOT NULL
    );
    CREATE TABLE ${s}.head (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      position bigint NOT NULL CHECK (position >= 0)
    );
    INSERT INTO ${s}.head (position) VALUES (0);
    CREATE TABLE ${s}.events (
      global_position bigint PRIMARY KEY CHECK (global_position >= 1),
      stream_id text NOT NULL,
      stream_position bigint NOT NULL CHECK (stream_position >= 1),
      event_id text NOT NULL UNIQUE,
      type text NOT NULL,
      schema_version integer NOT NULL,
      data json NOT NULL,
      metadata json NOT NULL,
      recorded_at timestamptz NOT NULL,
      UNIQUE (stream_id, stream_position)
    );
    CREATE INDEX events_compacted ON ${s}.events (stream_id, stream_position) WHERE type = 'Compacted';
    CREATE FUNCTION ${s}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'toolledger events are append-only: % is refused', TG_OP
        USING ERRCODE = 'restrict_violation';
    END $$;
    CREATE TRIGGER events_refuse_change BEFORE UPDATE OR DELETE ON ${s}.events
      FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_change();
    CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON ${s}.events
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_change();
    CREATE TABLE ${s}.snapshots (
      stream_id text NOT NULL,
      reducer_version integer NOT NULL,
      stream_position bigint NOT NULL CHECK (stream_position >= 1),
      state json NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (stream_id, reducer_version)
    );
    CREATE FUNCTION ${s}.append_events(
      p_stream text,
      p_expected text,
      p_ids text[],
      p_types text[],
      p_data text[],
      p_metadata text[],
      p_schema_version integer,
      p_repeated_id text,
      p_recorded_at timestamptz
    ) RETURNS TABLE (
      outcome text,
      next_expected bigint,
      first_global bigint,
      last_global bigint,
      actual bigint,
      event_id text,
      message text
    ) LANGUAGE plpgsql AS $fn$
    DECLARE
      v_n integer := coalesce(array_length(p_ids, 1), 0);
      v_head bigint;
      v_actual bigint;
      v_matches boolean;
      v_constraint text;
      v_found integer := 0;
      v_first_found text;
      v_previous bigint;
      v_first_global bigint;
      v_last_global bigint;
      r record;
    BEGIN
      -- The head row's lock serialises appends until commit: positions become visible in order.
      SELECT h.position INTO v_head FROM ${s}.head AS h FOR UPDATE;
      SELECT coalesce(max(e.stream_position), 0) INTO v_actual
        FROM ${s}.events AS e WHERE e.stream_id = p_stream;
      v_matches := p_expected = 'any'
        OR (p_expected = 'no_stream' AND v_actual = 0)
        OR (p_expected = 'stream_exists' AND v_actual > 0)
        OR (p_expected ~ '^[0-9]{1,18}$' AND p_expected::bigint = v_actual);
      -- The common case inserts at once; a stored id shows up as a unique violation (rolled back).
      IF v_n > 0 AND p_repeated_id IS NULL AND v_matches THEN
        BEGIN
          RETURN QUERY SELECT * FROM ${s}._insert_events(p_stream, v_head, v_actual, p_ids, p_types,
            p_data, p_metadata, p_schema_version, p_recorded_at);
          RETURN;
        EXCEPTION WHEN unique_violation THEN
          GET STACKED DIAGNOSTICS v_constraint = CONSTRAINT_NAME;
          IF v_constraint IS DISTINCT FROM 'events_event_id_key' THEN RAISE; END IF;
        END;
      END IF;
      -- Idempotent retry: every id stored in this stream with the same content, consecutively.
      FOR r IN
        SELECT b.id, e.stream_id, e.stream_position, e.global_position,
               e.data::text = b.data AND e.metadata::text = b.metadata AS same_content
        FROM unnest(p_ids, p_data, p_metadata) WITH ORDINALITY AS b(id, data, metadata, i)
        LEFT JOIN LATERAL (
          SELECT * FROM ${s}.events AS s WHERE s.event_id = b.id
        ) AS e ON true
        ORDER BY b.i
      LOOP
        CONTINUE WHEN r.stream_position IS NULL;
        IF r.stream_id <> p_stream OR NOT r.same_content THEN
          RETURN QUERY SELECT 'duplicate'::text, NULL::bigint, NULL::bigint, NULL::bigint,
            NULL::bigint, r.id, format('event id %s is already stored with different content', r.id);
          RETURN;
        END IF;
        v_found := v_found + 1;
        v_first_found := coalesce(v_first_found, r.id);
      END LOOP;
      IF v_found > 0 THEN
        IF v_found < v_n THEN
          RETURN QUERY SELECT 'duplicate'::text, NULL::bigint, NULL::bigint, NULL::bigint,
            NULL::bigint, v_first_found,
            'the batch mixes stored and new event ids; retry the original batch exactly'::text;
          RETURN;
        END IF;
        FOR r IN
          SELECT b.id, e.stream_position, e.global_position
          FROM unnest(p_ids) WITH ORDINALITY AS b(id, i)
          JOIN LATERAL (SELECT * FROM ${s}.events AS s WHERE s.event_id = b.id) AS e ON true
          ORDER BY b.i
        LOOP
          IF v_previous IS NOT NULL AND r.stream_position <> v_previous + 1 THEN
            RETURN QUERY SELECT 'duplicate'::text, NULL::bigint, NULL::bigint, NULL::bigint,
              NULL::bigint, r.id,
              'the batch''s event ids are stored, but not as one batch in this order; retry the original batch exactly'::text;
            RETURN;
          END IF;
          v_previous := r.stream_position;
          v_first_global := coalesce(v_first_global, r.global_position);
          v_last_global := r.global_position;
        END LOOP;
        RETURN QUERY SELECT 'ok'::text, v_previous, v_first_global, v_last_global, v_actual,
          NULL::text, NULL::text;
        RETURN;
      END IF;
      IF NOT v_matches THEN
        RETURN QUERY SELECT 'conflict'::text, NULL::bigint, NULL::bigint, NULL::bigint, v_actual,
          NULL::text, NULL::text;
        RETURN;
      END IF;
      IF v_n = 0 THEN
        RETURN QUERY SELECT 'ok'::text, v_actual, v_head, v_head, v_actual, NULL::text, NULL::text;
        RETURN;
      END IF;
      RETURN QUERY SELECT 'duplicate'::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint,
        p_repeated_id, format('event id %s appears twice in one batch', p_repeated_id);
    END $fn$;
    CREATE FUNCTION ${s}._insert_events(
      p_stream text,
      p_head bigint,
      p_actual bigint,
      p_ids text[],
      p_types text[],
      p_data text[],
      p_metadata text[],
      p_schema_version integer,
      p_recorded_at timestamptz
    ) RETURNS TABLE (
      outcome text,
      next_expected bigint,
      first_global bigint,
      last_global bigint,
      actual bigint,
      event_id text,
      message text
    ) LANGUAGE plpgsql AS $fn$
    DECLARE
      v_n integer := array_length(p_ids, 1);
    BEGIN
      INSERT INTO ${s}.events (global_position, stream_id, stream_position, event_id, type,
                               schema_version, data, metadata, recorded_at)
      SELECT p_head + b.i, p_stream, p_actual + b.i, b.id, b.type, p_schema_version,
             b.data::json, b.metadata::json,
             coalesce(p_recorded_at, date_trunc('milliseconds', clock_timestamp()))
      FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS b(id, type, data, metadata, i);
      UPDATE ${s}.head SET position = p_head + v_n;
      -- Wakes subscribers at commit (NOTIFY is transactional); the payload lets a follower of
      -- one stream skip the others. Readers still read: the table is the truth.
      PERFORM pg_notify(${channel},
        CASE WHEN length(p_stream) <= 1000 THEN (p_head + v_n)::text || ' ' || p_stream
             ELSE (p_head + v_n)::text END);
      RETURN QUERY SELECT 'ok'::text, p_actual + v_n, p_head + 1, p_head + v_n, p_actual,
        NULL::text, NULL::text;
    END $fn$;
    `,
    // toolledger 0.3.0, event catalogue 3 (L1–L3): the leases of serving processes, and an index
    // that finds each conversation's latest opening or close without reading the log.
    `
    CREATE TABLE ${s}.leases (
      holder text PRIMARY KEY,
      hostname text NOT NULL,
      pid integer NOT NULL,
      pid_space text,
      renewed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX events_lifecycle ON ${s}.events (stream_id, stream_position)
      WHERE type IN ('ConversationStarted', 'ConversationResumed', 'ConversationClosed');
    `,
    // toolledger 0.4.0, event catalogue 4 (V1: each upstream's era verdict): the tables are
    // unchanged; the step makes 0.3.0 refuse this store instead of failing on the new event.
    "SELECT 1 -- event catalogue 4",
  ];
}

/** Schema names the store accepts: a plain identifier short enough for its NOTIFY channel. */
export const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,51}$/;
