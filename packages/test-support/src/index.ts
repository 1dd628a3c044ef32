/**
 * Helpers shared by Trestle's own tests (private: never published). Each was written once for one package's
 * tests and copied into others; here it lives once.
 *
 * @packageDocumentation
 */
export { buildIfStale, buildServicePackage } from "./built-package.js";
export { type FakeRouter, type RouterRequest, startFakeRouter } from "./fake-router.js";
export { freePort } from "./free-port.js";
export { type ServiceProcess, startServiceProcess } from "./service-process.js";
export {
  type CertificateFiles,
  type CertificateSet,
  createCertificateSet,
  generateTestCertificates,
  type LeafOptions,
  type PemPair,
  type TestCertificates,
} from "./test-certificates.js";
