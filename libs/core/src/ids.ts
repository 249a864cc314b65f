import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/** A new time-sortable id (UUIDv7): facts, runs and records sort by creation. */
export function newId(): string {
  return uuidv7();
}

/** The namespace of derivedId's name-based UUIDs (a fixed random UUID). */
const DERIVED_ID_NAMESPACE = '6f1d3c2a-8b4e-4f7a-9c1d-2e5b7a9f0c34';

/**
 * The same id for the same parts, every time (a name-based UUIDv5): for a
 * record that a repeat of its work must find again rather than make twice,
 * such as the message the event bridge posts for one (fact, teammate).
 */
export function derivedId(...parts: string[]): string {
  return uuidv5(parts.join('\u0000'), DERIVED_ID_NAMESPACE);
}
