import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TemplateManifestSchema } from '../src';

/*
 * Decision 0049: every template shipped under templates/ is a valid manifest
 * (its spec a valid, scripted agent spec; its checklist covering what the spec
 * names), lives in the folder of its id, and has a README.
 */
const TEMPLATES = path.resolve(__dirname, '../../../templates');
const folders = readdirSync(TEMPLATES, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(path.join(TEMPLATES, entry.name, 'template.json')))
  .map((entry) => entry.name);

describe('shipped templates', () => {
  it('are the three first-party templates', () => {
    expect(folders.sort()).toEqual(['failure-fix-pr', 'incident-triage', 'scorecard-sentinel']);
  });

  it.each(folders)('%s is a valid manifest in the folder of its id, with a README', (folder) => {
    const parsed = TemplateManifestSchema.safeParse(JSON.parse(readFileSync(path.join(TEMPLATES, folder, 'template.json'), 'utf8')));
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data!.id).toBe(folder);
    expect(parsed.data!.spec.script!.length).toBeGreaterThan(0);
    expect(readFileSync(path.join(TEMPLATES, folder, 'README.md'), 'utf8')).toContain(parsed.data!.title);
  });

  it('refuses a manifest whose spec names a secret or an MCP server its checklist leaves out', () => {
    const manifest = JSON.parse(readFileSync(path.join(TEMPLATES, 'failure-fix-pr', 'template.json'), 'utf8'));
    const result = TemplateManifestSchema.safeParse({ ...manifest, requiredSecrets: [], requiredMcpServers: manifest.requiredMcpServers.slice(1) });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.path.join('.'))).toEqual(expect.arrayContaining(['requiredSecrets', 'requiredMcpServers']));
  });

  it('refuses a shipped spec that needs a model key to run', () => {
    const manifest = JSON.parse(readFileSync(path.join(TEMPLATES, 'incident-triage', 'template.json'), 'utf8'));
    const result = TemplateManifestSchema.safeParse({ ...manifest, spec: { ...manifest.spec, model: manifest.liveModel } });
    expect(result.error!.issues.map((issue) => issue.path.join('.'))).toContain('spec.model');
  });
});
