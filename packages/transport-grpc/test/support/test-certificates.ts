import { generateTestCertificates as generateShared, type PemPair } from "@trestle/test-support";

/** The shared test certificates (`@trestle/test-support`) as the TLS tests of this package name them. */
export interface TestCertificates {
  /** The CA the clients trust. */
  ca: string;
  /** Server certificate signed by `ca`, for 127.0.0.1 and localhost. */
  server: PemPair;
  /** Server certificate signed by `ca`, valid only for the name `capability.test`. */
  namedServer: PemPair;
  /** Client certificate signed by `ca`, for mutual TLS. */
  client: PemPair;
  /** Server certificate for 127.0.0.1 signed by a CA no client trusts. */
  untrustedServer: PemPair;
}

/** Generates {@link TestCertificates} with `@trestle/test-support`. */
export function generateTestCertificates(): TestCertificates {
  const shared = generateShared();
  return {
    ca: shared.ca,
    server: { cert: shared.serverCert, key: shared.serverKey },
    namedServer: shared.namedServer,
    client: { cert: shared.clientCert, key: shared.clientKey },
    untrustedServer: shared.untrustedServer,
  };
}
