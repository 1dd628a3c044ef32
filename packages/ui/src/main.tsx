import { render } from "preact";
import { App } from "./app";
import { createTokenStore } from "./logic/token-store";
import "./styles.css";

const root = document.getElementById("app");
if (root) render(<App tokens={createTokenStore(sessionStorage)} base={import.meta.env.BASE_URL} />, root);
