/** The verdict on node_modules: current, or why it must be installed again. */
export type InstallState = { current: true } | { current: false; reason: string };

/** Compares parsed package-lock.json and node_modules/.package-lock.json (null when missing). */
export function compareInstall(files: { lock: unknown; installed: unknown }): InstallState;

/** compareInstall over the files of the project at `root`. */
export function installState(root: string): InstallState;
