/**
 * Run by `npm start` once its gateway answers (decision 0042): prints one line, a one-time
 * sign-in link for the first admin of the oldest workspace — made now, named `default`, when
 * the database holds none — so the banner lets a newcomer in without pasting a token. Reaches
 * DATABASE_URL; links start with PUBLIC_URL, else the gateway URL it is given as argument.
 */
import { BaseEnvSchema, loadConfig } from '@switchyard/config';
import { SqlPool } from '@switchyard/db';
import { firstWorkspace, mintSignInLink } from './lib/admin/sign-in-links';

async function main(gatewayUrl: string | undefined): Promise<void> {
  if (!gatewayUrl) throw new Error('usage: first-sign-in.ts GATEWAY_URL');
  const config = loadConfig(BaseEnvSchema, process.env);
  const sql = new SqlPool({ databaseUrl: config.DATABASE_URL, poolMax: 1, applicationName: 'first-sign-in' });
  try {
    const workspace = await firstWorkspace(sql);
    const link = await mintSignInLink(sql, workspace, process.env.PUBLIC_URL || gatewayUrl);
    if (workspace.created) console.error(`workspace ${workspace.slug} created (the database held none)`);
    console.log(JSON.stringify({ url: link.url, workspace: workspace.slug, name: link.member.name }));
  } finally {
    await sql.$disconnect();
  }
}

main(process.argv[2]).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
