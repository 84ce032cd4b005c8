import { mount } from "svelte";
import App from "./App.svelte";
import "./app.css";
import "./highlight.css";
import { markPhase } from "./lib/startup-phases";

// Every module above has run: the bundle is parsed and evaluated.
markPhase("script");

const target = document.getElementById("app");
if (!target) throw new Error("missing #app");

export default mount(App, { target });
