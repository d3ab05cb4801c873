import StrobeCLI
import StrobeLightsHTTP

await runStrobeTool { token, baseURL in LIFXHTTPBackend(token: token, baseURL: baseURL) }
