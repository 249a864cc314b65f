import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRunState, RUN_STATE_ERRORS, RUN_STATE_SCHEMA_VERSION, SUPPORTED_RUN_STATE_VERSIONS } from '../src/index';

/**
 * Why this exists: a run's state between steps is serialized (and will be
 * persisted by approvals), so every version this code claims to read must
 * keep parsing, and a version it does not know must be refused by its code,
 * never half-read.
 */
const folder = path.join(__dirname, 'fixtures', 'run-state', 'historical');
const fixtures = readdirSync(folder).map((file) => [file, JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as { schemaVersion: number }] as const);

describe('RunState versions', () => {
  it.each(fixtures)('parses the stored state %s unchanged', (_file, state) => {
    expect(parseRunState(state)).toEqual({ ok: true, state });
  });

  it('has a fixture for every supported version, the current one included', () => {
    const versions = new Set(fixtures.map(([, state]) => state.schemaVersion));
    expect(SUPPORTED_RUN_STATE_VERSIONS).toContain(RUN_STATE_SCHEMA_VERSION);
    for (const version of SUPPORTED_RUN_STATE_VERSIONS) expect(versions).toContain(version);
  });

  it.each([3, 0, '1', null, undefined])('refuses schemaVersion %p with run_state_version_unsupported', (version) => {
    const [, state] = fixtures[0]!;
    expect(parseRunState({ ...state, schemaVersion: version })).toEqual({
      ok: false,
      code: RUN_STATE_ERRORS.versionUnsupported,
      version,
      supported: SUPPORTED_RUN_STATE_VERSIONS,
    });
    expect(RUN_STATE_ERRORS.versionUnsupported).toBe('run_state_version_unsupported');
  });

  it('refuses a value that is not a state at all, and a supported version whose shape is wrong, each by its code', () => {
    expect(parseRunState('{"schemaVersion":1}')).toMatchObject({ ok: false, code: 'run_state_version_unsupported' });
    const [, state] = fixtures[0]!;
    const broken = parseRunState({ ...state, next: { type: 'tools', calls: [], final: false } });
    expect(broken).toMatchObject({ ok: false, code: 'run_state_invalid' });
    expect(parseRunState({ ...state, extra: true })).toMatchObject({ ok: false, code: 'run_state_invalid' });
  });
});
