import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'wouter';
import { api, errorText, wsPath } from '../api';
import { useWorkspace } from '../session';
import type { AdoptTemplateResponse, TemplateSummary } from '../types';

/** What an adopted copy still needs: secrets set or missing here, MCP servers to point, rules to add. */
function Checklist({ adopted }: { adopted: AdoptTemplateResponse }) {
  const { agent, checklist } = adopted;
  return (
    <div data-testid="adopt-checklist" role="status">
      <p>
        Adopted as <Link href={`/agents/${agent.id}`}>{agent.name}</Link> (disabled). Before enabling it:
      </p>
      <ul>
        {checklist.secrets.map((secret) => (
          <li key={secret.name} data-secret={secret.name} data-set={String(secret.set)}>
            {secret.set ? '✓' : '✗'} secret <code>{secret.name}</code> {secret.set ? 'is set' : 'is missing'} — {secret.purpose}
          </li>
        ))}
        {checklist.mcpServers.map((server) => (
          <li key={server.name} data-mcp-server={server.name}>
            MCP server <code>{server.name}</code> ({server.tools.join(', ')}): points at <code>{server.target}</code> — point it at yours. {server.purpose}
          </li>
        ))}
        {checklist.notificationRules.map((rule) => {
          const status = checklist.notificationRulesInstalled.find((installed) => installed.id === rule.id)?.status;
          return (
            <li key={rule.id} data-rule={rule.id} data-rule-status={status}>
              notification rule <code>{rule.id}</code> for <code>{rule.kind}</code>: {RULE_STATUS_WORDS[status ?? 'not_admin']}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/** What adopting did with a template's notification rule, in words. */
const RULE_STATUS_WORDS: Record<AdoptTemplateResponse['checklist']['notificationRulesInstalled'][number]['status'], string> = {
  installed: '✓ installed in the notification settings',
  already_installed: '✓ already in the notification settings',
  kept_existing: 'a rule of yours has this id and was kept: compare them under the notification settings',
  no_room: 'not installed: the notification settings hold the most rules they can',
  not_admin: 'an admin adds it under the notification settings',
};

/** One template: what it does, what it needs, and (members) Adopt with an optional name. */
function TemplateCard({ template, canAdopt }: { template: TemplateSummary; canAdopt: boolean }) {
  const { slug } = useWorkspace();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [adopted, setAdopted] = useState<AdoptTemplateResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  const adopt = async () => {
    setError(undefined);
    try {
      setAdopted(await api<AdoptTemplateResponse>('POST', wsPath(slug, `/templates/${template.id}/adopt`), name.trim() ? { name: name.trim() } : {}));
      void queryClient.invalidateQueries({ queryKey: ['agents', slug] });
    } catch (caught) {
      setError(errorText(caught));
    }
  };
  return (
    <section aria-label={template.title} data-template-id={template.id}>
      <h2>{template.title}</h2>
      <p>{template.summary}</p>
      <p className="muted">
        Wakes on {template.triggers.map((kind) => <code key={kind}>{kind} </code>)}· mode <code>{template.permissionMode}</code> · needs{' '}
        {template.requiredSecrets.length} secret(s), {template.requiredMcpServers.length} MCP server(s)
      </p>
      {canAdopt && (
        <div className="row">
          <label htmlFor={`adopt-name-${template.id}`}>Name</label>
          <input id={`adopt-name-${template.id}`} placeholder={template.agentName} value={name} onChange={(e) => setName(e.target.value)} />
          <button type="button" onClick={() => void adopt()}>
            Adopt
          </button>
        </div>
      )}
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {adopted && <Checklist adopted={adopted} />}
    </section>
  );
}

/** The first-party templates (decision 0049): any member reads them; members and admins adopt. */
export function TemplatesPage() {
  const { slug, role } = useWorkspace();
  const templates = useQuery({ queryKey: ['templates', slug], queryFn: async () => (await api<{ templates: TemplateSummary[] }>('GET', wsPath(slug, '/templates'))).templates });
  return (
    <>
      <h1>Templates</h1>
      <p>Ready-made agents. Adopting one makes a disabled copy in this workspace and lists what it needs before you enable it.</p>
      {templates.error && (
        <p role="alert" className="error">
          {errorText(templates.error)}
        </p>
      )}
      {templates.data?.map((template) => <TemplateCard key={template.id} template={template} canAdopt={role !== 'viewer'} />)}
    </>
  );
}
