/**
 * `npm run admin -- <command> …`: operator commands that need no token (`npm run admin -- help`
 * lists them). They reach DATABASE_URL / REDIS_URL, else the servers of the running `npm start`
 * (never a default URL). Each command is one line of COMMANDS; its code lives in
 * scripts/lib/admin/.
 */
import { type AdminCommand, openAdminContext, UsageError } from './lib/admin/admin-command';
import { exportAgentsCommand, importAgentsCommand } from './lib/admin/agent-bundle-commands';
import { deadLettersCommand } from './lib/admin/dead-letter-commands';
import { createTokenCommand, listTokensCommand, revokeTokenCommand } from './lib/admin/token-commands';
import { createWorkspaceCommand, listMembersCommand, signInLinkCommand } from './lib/admin/workspace-commands';
import { useRunningPlatform } from './lib/operator-env';

/** Every command, by the name typed after `npm run admin --`, in the order help lists them. */
const COMMANDS: Readonly<Record<string, AdminCommand>> = {
  'create-workspace': createWorkspaceCommand,
  'list-members': listMembersCommand,
  'create-token': createTokenCommand,
  'list-tokens': listTokensCommand,
  'revoke-token': revokeTokenCommand,
  'sign-in-link': signInLinkCommand,
  'dead-letters': deadLettersCommand,
  'export-agents': exportAgentsCommand,
  'import-agents': importAgentsCommand,
};

/** The commands and what each does. */
function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name} ${command.usage}\n      ${command.summary}`);
  return ['usage: npm run admin -- <command> …', ...lines].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === 'help' || name === '--help' || name === '-h') {
    console.log(help());
    return 0;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (!command) {
    console.error(`${name === undefined ? 'no command given' : `unknown command ${name}`}\n${help()}`);
    return 1;
  }
  useRunningPlatform();
  const context = openAdminContext();
  try {
    await command.run(args, context);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\nusage: npm run admin -- ${name} ${command.usage}`);
    return 1;
  } finally {
    await context.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    // An AppError's message names what is wrong (an unknown workspace, role or token): no stack.
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
