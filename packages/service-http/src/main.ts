#!/usr/bin/env node
import { serveCapability } from "@trestle/capability";
import { HTTP_CLI } from "./cli-options.js";
import { httpCapability } from "./start-http-service.js";

await serveCapability({ ...httpCapability, cli: HTTP_CLI });
