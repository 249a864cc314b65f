export { derivedId, newId } from './ids';
export { compileKindGlob, kindGlobLiteralPrefix, kindGlobToSqlRegex, matchesKindGlob } from './kind-glob';
export type { KindMatcher } from './kind-glob';
export { ACCESS_LINK_PREFIX, accessLinkUrl, AGENT_TOKEN_PREFIX, hashToken, newAccessLinkSecret, isAgentToken, newAgentTokenSecret, newTokenSecret, TOKEN_PREFIX, tokenPrefix } from './tokens';
export { compileFilter, explainFilter, FILTER_MISS_SEEN_MAX_CHARS } from './trigger-filter';
export type { FactPredicate, FilterMiss } from './trigger-filter';
export { agentFact, agentTagFact, approvalFact, collaboratorFact, delegationReturnedFact, messageSentFact, settingsChangedFact, evalGateOverriddenFact, taskFact, teammateFact, runVersionOf } from './platform-facts';
export type { ApprovalFactKind, ChangeAuthor } from './platform-facts';
export { opsFact } from './ops-facts';
export type { OpsFactPayloads } from './ops-facts';
export { mattermostLinkFact, memberFact, memberInvitedFact, notificationSettingsChange, notificationSettingsFact, secretFact, tokenFact } from './audit-facts';
export { isSecretsKey, newSecretsKey, parseSecretsKey, SecretBox, secretsKeyId } from './secret-box';
export type { SealedSecret, SecretBoxOptions, SecretScope } from './secret-box';
export { REDACTED, redactSecrets } from './redact-secrets';
export { addressRange, OutboundUrlError, resolveOutboundUrl } from './outbound-url';
export type { AddressRange, LookupAll, OutboundUrlErrorCode, OutboundUrlOptions, ResolvedOutboundUrl } from './outbound-url';
export { matchesStarGlob } from './star-glob';
export { checkStorableJson, unstorableIn } from './storable-json';
export type { JsonCheck, JsonPath, JsonRefusal } from './storable-json';
export { createNodeFetch, createPinnedFetch } from './node-fetch';
export type { FetchLike, NodeFetch, NodeFetchOptions, PinnedHost } from './node-fetch';
export { actionSigningKey, signActionContext, verifyActionContext } from './action-signature';
export type { UnsignedActionContext } from './action-signature';
export { MattermostRest, retryAfterOf } from './mattermost-rest';
export type { MattermostAction, MattermostAnswer, MattermostAttachment, MattermostPostInput, MattermostRestOptions, MattermostTarget } from './mattermost-rest';
export { approvalOf, approvalOutcomeMessage, approvalRequestMessage, defaultMessage, neutralize, renderTemplate, subjectKey } from './mattermost-messages';
export type { ButtonSigner, RenderedMessage } from './mattermost-messages';
export { deliverToTeammate } from './teammate-delivery';
export type {
  DeliveryActivationPort,
  DeliveryCommit,
  DeliveryCommitPort,
  DeliveryRecipient,
  ResidentMailboxPort,
  TeammateDeliveryInput,
  TeammateDeliveryPorts,
} from './teammate-delivery';
export { webhookFact } from './platform-facts';
export { parseJsonPath, resolveJsonPath, walkJson } from './json-path';
export type { JsonStep } from './json-path';
export { duplicateKeyIn } from './json-duplicate-keys';
export { GITHUB_DELIVERY_HEADER, GITHUB_SIGNATURE_HEADER, verifyWebhookSignature, webhookHmac } from './webhook-signature';
export { deliveryIdOf, kindPartOf, webhookActor, webhookDeliveryFact } from './webhook-delivery';
export type { WebhookDelivery } from './webhook-delivery';
export { canonicalJson, specHash } from './canonical-json';
export { changedTopLevelFields, jsonDiff } from './json-diff';
export { applyJsonPatch } from './json-patch';
export { applyCraftPatch, type CraftDraft } from './craft-patch';
export type { JsonPatchFailure } from './json-patch';
export type { JsonDiffOperation } from './json-diff';
export { credentialShapeIn } from './credential-patterns';
export { screenAgentMessage, screenAgentMessageBytes, sha256Hex } from './agent-message-screen';
export type { QuarantineFacts, ScreenResult } from './agent-message-screen';
export { assertTiming, dueSlots, localTime, MAX_COUNTED_SLOTS, nextSlot, timingOf } from './schedule-slots';
export type { DueSlots, ScheduleTiming } from './schedule-slots';
export { SCHEDULER_ACTOR, scheduleChangeFact, scheduleFireFact, slotKeyOf } from './schedule-facts';
export type { FiringSchedule } from './schedule-facts';
export { isRedisUnavailable, isStoreUnavailable } from './store-unavailable';
