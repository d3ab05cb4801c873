import StrobeCLI

// The strobe tool without the LIFX HTTP API backend: no HTTP client, swift-nio or TLS in it.
await runStrobeTool()
