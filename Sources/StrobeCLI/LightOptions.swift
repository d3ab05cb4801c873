import ArgumentParser
import Foundation
import Strobe
import StrobeLights
import StrobeBase
import Synchronization

/// Makes the LIFX HTTP API's backend from a token and the API's base URL: the `strobe`
/// executable passes one, `strobe-lite` (no HTTP client) none.
public typealias LIFXHTTPBackendFactory = @Sendable (_ token: String, _ baseURL: URL) -> any LightsBackend

/// What every `strobe light` command takes: which backend reaches the lights, which lights,
/// and how to answer.
struct LightOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Option(help: ArgumentHelp(
        "lan[:HOST[:PORT]] (the LIFX LAN protocol; HOST is the broadcast or unicast address to discover on, default 255.255.255.255, PORT default 56700), http (the LIFX HTTP API) or ble (LEDnet Bluetooth lights, on --transport).",
        valueName: "backend"))
    var backend: String = "ble"

    @Option(help: ArgumentHelp("all, id:ID, group_id:ID, location_id:ID, scene_id:UUID or label:LABEL.", valueName: "selector"))
    var selector: String = "all"

    @Option(help: ArgumentHelp("A file holding the LIFX HTTP API token (else LIFX_TOKEN).", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("The LIFX HTTP API's base URL.", valueName: "url"))
    var apiURL: String = LightOptions.defaultAPIURL

    /// How the running executable makes the LIFX HTTP API's backend, if it has one: set once by
    /// `runStrobeTool`, read by any command. A process-wide value, not a task-local: Swift 6.3's
    /// release builds crash in `swift_task_localValuePush` when top-level code binds one.
    static let lifxHTTPBackendFactory = Lock<LIFXHTTPBackendFactory?>(nil)

    /// LIFXHTTPBackend's, here too in a strobe built without it.
    static let defaultAPIURL = "https://api.lifx.com/v1/"

    @Option(help: ArgumentHelp("Scenes for the LAN and Bluetooth backends (JSON; default $XDG_STATE_HOME/strobe/scenes.json).",
                               valueName: "file"))
    var scenes: String?

    @Option(help: "How long Bluetooth scans for lights and LAN discovery listens, in milliseconds.") var discoverMs: Int = 1000

    @Flag(help: "JSON: one object per light (list) or per result (operations).") var json = false

    func validate() throws {
        _ = try parsedSelector()
        guard (1...60_000).contains(discoverMs) else { throw ValidationError("--discover-ms must be 1...60000") }
        guard ["lan", "http", "ble"].contains(backend.split(separator: ":").first.map(String.init) ?? "") else {
            throw ValidationError("--backend must be lan[:HOST[:PORT]], http or ble")
        }
    }

    func parsedSelector() throws -> LightSelector {
        do { return try LightSelector(selector) } catch { throw ValidationError(error.description) }
    }

    var localScenes: LocalScenes { LocalScenes(file: scenes.map { URL(fileURLWithPath: $0) } ?? LocalScenes.defaultFile) }

    /// The client over the chosen backend, and the controller session the Bluetooth one runs on.
    func openClient() async throws -> (Client, ControllerSession?) {
        var session: ControllerSession?
        let backend = try await LightOptions.makeBackend(
            backend, discoverMs: discoverMs, scenes: localScenes, apiURL: apiURL, tokenFile: tokenFile) {
                let opened = try await ControllerSession.open(global)
                session = opened
                return opened.host
            }
        return (Client(backend: backend), session)
    }

    /// A backend from its `--backend` text; `host` is asked for only by the Bluetooth one.
    static func makeBackend(_ text: String, discoverMs: Int, scenes: LocalScenes, apiURL: String, tokenFile: String?,
                            host: () async throws -> BluetoothHost) async throws -> any LightsBackend {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch parts[0] {
        case "lan":
            guard parts.count <= 3, let port = parts.count == 3 ? UInt16(parts[2]) : 56700 else {
                throw ValidationError("lan[:HOST[:PORT]]: '\(text)' has no usable port")
            }
            let host = parts.count >= 2 && !parts[1].isEmpty ? parts[1] : "255.255.255.255"
            return try LIFXLANBackend(configuration: .init(discoveryHosts: [host], port: port, discoveryWindow: .milliseconds(discoverMs),
                                                           scenes: scenes))
        case "http":
            guard let url = URL(string: apiURL), url.scheme == "https" || url.scheme == "http" else {
                throw ValidationError("--api-url '\(apiURL)' is no http(s) URL")
            }
            guard let lifxHTTPBackend = lifxHTTPBackendFactory.withLock({ $0 }) else {
                throw ValidationError("this strobe was built without the LIFX HTTP API (strobe-lite): use the strobe executable")
            }
            return lifxHTTPBackend(try token(file: tokenFile), url)
        case "ble":
            return LEDnetBackend(host: try await host(), configuration: .init(scanDuration: .milliseconds(discoverMs), scenes: scenes))
        default:
            throw ValidationError("the lights' backend must be lan[:HOST[:PORT]], http or ble, not '\(text)'")
        }
    }

    /// From `file` or LIFX_TOKEN; never printed.
    private static func token(file: String?) throws -> String {
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("cannot read the token file \(file)")
            }
            let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty else { throw ValidationError("the token file \(file) is empty") }
            return token
        }
        guard let token = ProcessInfo.processInfo.environment["LIFX_TOKEN"], !token.isEmpty else {
            throw ValidationError("the http backend needs a token: set LIFX_TOKEN or give --token-file")
        }
        return token
    }

    /// Opens the client, fetches, runs `body`, and closes whatever was opened.
    func withClient<T>(_ body: (Client) async throws -> T) async throws -> T {
        let (client, session) = try await openClient()
        do {
            try await client.fetch()
            let result = try await body(client)
            try await client.close()
            try session?.close()
            return result
        } catch {
            // Already failing: the first error is the news.
            try? await client.close()
            try? session?.close()
            throw error
        }
    }
}
