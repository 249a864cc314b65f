/**
 * Deepest nesting of arrays and objects in a JSON body the gateway accepts:
 * the body itself is level 1. Bodies are checked iteratively against it
 * before anything recursive (zod, JSON.stringify) walks them, so a body
 * nested thousands deep is a 400 `JSON_TOO_DEEP`, not a stack overflow.
 */
export const MAX_JSON_DEPTH = 64;
