export {
  type BearerChallengeParams,
  type BearerErrorCode,
  bearerChallenge,
  insufficientScopeChallenge,
  isScopeToken,
  unauthorizedChallenge,
} from "./challenge.js";
export { type ClaimNames, claimStrings, readClaim, tokenScopesOf } from "./claims.js";
export {
  type AuthorizationServerMetadata,
  type DiscoveryOptions,
  discoverAuthorizationServer,
  discoveryUrls,
} from "./discovery.js";
export { AuthError, type AuthErrorCode, type AuthErrorOptions } from "./errors.js";
export type { ClientAuthMethod } from "./internal/client-auth.js";
export type { FetchFunction } from "./internal/http.js";
export {
  ASYMMETRIC_ALGORITHMS,
  createOAuthVerifier,
  type IntrospectionConfig,
  type IssuerConfig,
  type OAuthVerifier,
  type OAuthVerifierOptions,
} from "./oauth-verifier.js";
export {
  createPrincipal,
  hasScope,
  missingScopes,
  type Principal,
  type PrincipalInit,
  type PrincipalKind,
  principalBearer,
} from "./principal.js";
export {
  buildProtectedResourceMetadata,
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataInit,
} from "./resource-metadata.js";
export {
  createResourceServer,
  type EndpointOptions,
  type ProtectedEndpoint,
  type ResourceServer,
  type ResourceServerOptions,
} from "./resource-server.js";
export {
  canonicalResourceUri,
  endpointResourceUri,
  PROTECTED_RESOURCE_WELL_KNOWN,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from "./resource-uri.js";
export {
  createScopeMapping,
  ROUTER_SCOPES,
  type ScopeMapping,
  type ScopeMappingOptions,
} from "./scope-mapping.js";
export {
  createStaticTokenVerifier,
  type StaticTokenConfig,
  type StaticTokenVerifier,
} from "./static-tokens.js";
export {
  ACCESS_TOKEN_TYPE,
  createTokenExchanger,
  type ExchangedToken,
  TOKEN_EXCHANGE_GRANT_TYPE,
  type TokenExchangeOptions,
  type TokenExchanger,
} from "./token-exchange.js";
