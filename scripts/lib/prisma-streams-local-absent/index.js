// Installed in place of @prisma/streams-local (root package.json "overrides"). The Prisma CLI
// loads that package only for `prisma dev` (a local Prisma Postgres), which Switchyard does not
// use, and it declares Node >= 22, so every `npm ci` on Node 20 printed an engine warning.
// Calling it says why it is missing instead of failing somewhere inside `prisma dev`.
'use strict';

/** Refuses: `prisma dev` is not part of this project's toolchain. */
async function startLocalDurableStreamsServer() {
  throw new Error(
    '@prisma/streams-local is not installed in Switchyard (it needs Node 22 and only `prisma dev` uses it); ' +
      'remove its entry from "overrides" in package.json to use `prisma dev`',
  );
}

module.exports = { startLocalDurableStreamsServer };
