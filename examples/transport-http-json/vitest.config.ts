import { routerTestConfig } from "../../vitest.shared.js";

export default routerTestConfig;
