#!/usr/bin/env node
import { serveCapability } from "@trestle/capability";
import { EXEC_CLI } from "./cli-options.js";
import { execCapability } from "./start-exec-service.js";

await serveCapability({ ...execCapability, cli: EXEC_CLI });
