import { v7 as uuidv7 } from 'uuid';

/** A new time-sortable id (UUIDv7): facts, runs and records sort by creation. */
export function newId(): string {
  return uuidv7();
}
