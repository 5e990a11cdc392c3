/** Schema version of every event type this build writes and reads. */
export const EVENT_SCHEMA_VERSION = 1;
