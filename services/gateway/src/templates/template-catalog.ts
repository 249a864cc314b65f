import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TemplateManifestSchema, type TemplateManifest } from '@switchyard/contracts';

/** Where the repo ships its templates (`templates/<id>/template.json`, decision 0049). */
export const DEFAULT_TEMPLATES_DIR = path.resolve(__dirname, '../../../../templates');

/**
 * The first-party templates, read once at start. A template that does not
 * parse, or whose folder is not its id, stops the start: templates are shipped
 * data, so a broken one is a bug of the release, not of a request.
 */
export function loadTemplateCatalog(dir: string = DEFAULT_TEMPLATES_DIR): TemplateManifest[] {
  if (!existsSync(dir)) return [];
  const manifests: TemplateManifest[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const file = path.join(dir, entry.name, 'template.json');
    if (!existsSync(file)) continue;
    const parsed = TemplateManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new Error(`template ${file} is invalid: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    if (parsed.data.id !== entry.name) throw new Error(`template ${file} has id ${parsed.data.id}, not its folder's name`);
    manifests.push(parsed.data);
  }
  return manifests;
}
