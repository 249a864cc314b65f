import { MODEL_ERROR_CODES } from '@switchyard/contracts';
import { OutboundUrlError, resolveOutboundUrl, type OutboundUrlOptions, type ResolvedOutboundUrl } from '@switchyard/core';
import { ModelError } from './model';
import type { ModelEnv } from './model-config';

/** What a refusal of a private address tells the agent's author (and the operator) to do. */
const PRIVATE_HINT = 'a model on a private, loopback or link-local address needs RUNNER_MODEL_ALLOW_PRIVATE=true on the runner, or its host in RUNNER_MODEL_ALLOWED_HOSTS (docs/models.md)';

/**
 * The runner's check of an agent's own `model.baseUrl` (createModel's `checkBaseUrl`, decision
 * 0013): the outbound URL guard with the models' own settings — RUNNER_MODEL_ALLOW_PRIVATE and
 * RUNNER_MODEL_ALLOWED_HOSTS, apart from the MCP servers' — returning the checked address the
 * model's requests are pinned to. A refusal is a ModelError `model_url_refused`, so the run
 * ends failed with that code and a message that says which setting allows it.
 */
export function modelEndpointCheck(
  env: Pick<ModelEnv, 'RUNNER_MODEL_ALLOW_PRIVATE' | 'RUNNER_MODEL_ALLOWED_HOSTS'>,
  lookup?: OutboundUrlOptions['lookup'],
): (url: string) => Promise<ResolvedOutboundUrl> {
  const options: OutboundUrlOptions = { allowPrivate: env.RUNNER_MODEL_ALLOW_PRIVATE, allowedHosts: env.RUNNER_MODEL_ALLOWED_HOSTS, ...(lookup ? { lookup } : {}) };
  return async (url) => {
    try {
      return await resolveOutboundUrl(url, options);
    } catch (error) {
      if (!(error instanceof OutboundUrlError)) throw error;
      const hint = error.code === 'url_not_allowed' && error.data?.range !== 'metadata' ? `: ${PRIVATE_HINT}` : '';
      throw new ModelError(MODEL_ERROR_CODES.urlRefused, `model.baseUrl is refused: ${error.message}${hint}`, { cause: error });
    }
  };
}
