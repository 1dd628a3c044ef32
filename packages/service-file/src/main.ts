#!/usr/bin/env node
import { serveCapability } from "@trestle/capability";
import { FILE_CLI } from "./cli-options.js";
import { fileCapability } from "./start-file-service.js";

await serveCapability({ ...fileCapability, cli: FILE_CLI });
