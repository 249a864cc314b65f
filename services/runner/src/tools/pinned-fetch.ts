// The pinned fetch lives in libs/core: the notifier's Mattermost calls use it too.
export { createPinnedFetch } from '@switchyard/core';
export type { PinnedFetch, PinnedHost } from '@switchyard/core';
