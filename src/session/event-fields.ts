/** The fields every logged event has, shared by the event schemas and the settings table. */
import * as v from "valibot";

/** Every event's place in its log (from 1) and when it was appended. */
export const EVENT_FIELDS = {
  seq: v.pipe(v.number(), v.integer(), v.minValue(1)),
  at: v.string(),
};
