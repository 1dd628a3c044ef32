import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** PEM texts of a throw-away CA, a server certificate for 127.0.0.1/localhost and a client certificate. */
export interface TestCertificates {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** Another CA: trusting only it must fail. */
  otherCa: string;
  /** A client certificate that the other CA signed: refused under mutual TLS. */
  rogueClientCert: string;
  rogueClientKey: string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
}

function issue(
  dir: string,
  ca: string,
  name: string,
  subject: string,
  extensions: string,
  serial: string,
): void {
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(
    dir,
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.csr`,
    "-subj",
    subject,
  );
  openssl(
    dir,
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    `${ca}.crt`,
    "-CAkey",
    `${ca}.key`,
    "-set_serial",
    serial,
    "-days",
    "1",
    "-out",
    `${name}.crt`,
    "-extfile",
    `${name}.ext`,
  );
}

function selfSignedCa(dir: string, name: string, subject: string): void {
  openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    "1",
    "-subj",
    subject,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  );
}

/** Generates the certificates with the `openssl` CLI in a temporary directory, removed afterwards. */
export function generateTestCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), "trestle-certs-"));
  try {
    selfSignedCa(dir, "ca", "/CN=Trestle Test CA");
    selfSignedCa(dir, "other-ca", "/CN=Someone Else's CA");
    issue(
      dir,
      "ca",
      "server",
      "/CN=localhost",
      "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
      "1",
    );
    issue(dir, "ca", "client", "/CN=trestle-router", "extendedKeyUsage=clientAuth\n", "2");
    issue(dir, "other-ca", "rogue", "/CN=trestle-router", "extendedKeyUsage=clientAuth\n", "3");
    const read = (file: string) => readFileSync(join(dir, file), "utf8");
    return {
      ca: read("ca.crt"),
      serverCert: read("server.crt"),
      serverKey: read("server.key"),
      clientCert: read("client.crt"),
      clientKey: read("client.key"),
      otherCa: read("other-ca.crt"),
      rogueClientCert: read("rogue.crt"),
      rogueClientKey: read("rogue.key"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
