import ArgumentParser
import Foundation
import StrobeLights

/// `strobe light`: LIFX-style lights over the LAN protocol, the HTTP API or Bluetooth.
struct LightCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "light",
        abstract: "List and drive lights: LIFX over the LAN or the HTTP API, LEDnet lights over Bluetooth.",
        discussion: "Lights are addressed by --selector (default all). The http backend's token comes from LIFX_TOKEN or --token-file. An operation exits 1 when a light did not take it.",
        subcommands: [List.self, On.self, Off.self, Set.self, Scenes.self, Restore.self])

    /// Declared here as well, so that the options may come before the subcommand's name.
    @OptionGroup var options: LightOptions

    /// `{"id","label","power","brightness","hue","saturation","kelvin","group","location","connected"}`.
    struct LightJSON: Encodable {
        var id: String
        var label: String
        var power: Bool
        var brightness: Double
        var hue: Double
        var saturation: Double
        var kelvin: Int
        var group: String?
        var location: String?
        var connected: Bool

        init(_ light: Light) {
            id = light.id
            label = light.label
            power = light.power
            brightness = light.brightness
            hue = light.color.hue
            saturation = light.color.saturation
            kelvin = light.color.kelvin
            group = light.group?.name
            location = light.location?.name
            connected = light.connected
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The selected lights and their state.")
        @OptionGroup var options: LightOptions

        func run() async throws {
            let selector = try options.parsedSelector()
            try await options.withClient { client in
                let lights = client.lightTargetWithSelector(selector).lights
                for light in lights {
                    if options.json {
                        try JSONOutput.print(LightJSON(light))
                    } else {
                        let color = light.color.saturation > 0
                            ? String(format: "hue %.0f° saturation %.0f%%", light.color.hue, light.color.saturation * 100)
                            : "white \(light.color.kelvin) K"
                        let place = [light.group?.name, light.location?.name].compactMap { $0 }.joined(separator: ", ")
                        print("\(light.id)  \"\(light.label)\"  \(light.power ? "on" : "off")  \(Int((light.brightness * 100).rounded()))%  \(color)"
                            + (place.isEmpty ? "" : "  (\(place))") + (light.connected ? "" : "  disconnected"))
                    }
                }
                if !options.json { print("\(lights.count) light(s)") }
            }
        }
    }

    struct On: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Power the selected lights on.")
        @OptionGroup var options: LightOptions
        @Option(help: "Transition, in seconds.") var duration: Double = 0.5

        func run() async throws {
            try await LightCommand.operate(options) { try await $0.setPower(true, duration: .seconds(duration)) }
        }
    }

    struct Off: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Power the selected lights off.")
        @OptionGroup var options: LightOptions
        @Option(help: "Transition, in seconds.") var duration: Double = 0.5

        func run() async throws {
            try await LightCommand.operate(options) { try await $0.setPower(false, duration: .seconds(duration)) }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set colour, brightness or white point (any of them; power on too with --on).")
        @OptionGroup var options: LightOptions
        @Option(help: ArgumentHelp("A name (red, orange, yellow, green, cyan, blue, purple, pink, white), #RRGGBB, or hue:DEGREES[,saturation:0-1].",
                                   valueName: "color"))
        var color: String?
        @Option(help: "0 to 1.") var brightness: Double?
        @Option(help: "White point, 1500 to 9000 K (white, unless --color is given).") var kelvin: Int?
        @Flag(help: "Power on as well.") var on = false
        @Option(help: "Transition, in seconds.") var duration: Double = 0.5

        func validate() throws {
            guard color != nil || brightness != nil || kelvin != nil || on else {
                throw ValidationError("give --color, --brightness, --kelvin or --on")
            }
            if let brightness, !(0...1).contains(brightness) { throw ValidationError("--brightness must be 0...1") }
            if let kelvin, !LightColor.kelvinRange.contains(kelvin) { throw ValidationError("--kelvin must be 1500...9000") }
            if let color, LightCommand.parseColor(color) == nil { throw ValidationError("--color: cannot read '\(color)'") }
            guard duration >= 0, duration <= 3600 else { throw ValidationError("--duration must be 0...3600 seconds") }
        }

        func run() async throws {
            var lightColor = color.flatMap(LightCommand.parseColor)
            if let kelvin { lightColor = LightColor(hue: lightColor?.hue ?? 0, saturation: lightColor?.saturation ?? 0, kelvin: kelvin) }
            let change = LightStateChange(power: on ? true : nil, color: lightColor, brightness: brightness, duration: .seconds(duration))
            try await LightCommand.operate(options) { try await $0.setState(change) }
        }
    }

    struct Scenes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The scenes the backend knows.")
        @OptionGroup var options: LightOptions

        struct SceneJSON: Encodable {
            var id: String
            var name: String
            var states: Int
        }

        func run() async throws {
            try await options.withClient { client in
                for scene in client.scenes {
                    if options.json {
                        try JSONOutput.print(SceneJSON(id: scene.id, name: scene.name, states: scene.states.count))
                    } else {
                        print("\(scene.id)  \"\(scene.name)\"  \(scene.states.count) state(s)")
                    }
                }
                if !options.json { print("\(client.scenes.count) scene(s)") }
            }
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Apply a scene, by id or name.")
        @OptionGroup var options: LightOptions
        @Argument(help: "The scene's id or name.") var scene: String
        @Option(help: "Transition, in seconds.") var duration: Double = 0.5

        func run() async throws {
            try await options.withClient { client in
                guard let found = client.scenes.first(where: { $0.id == scene }) ?? client.scenes.first(where: { $0.name == scene }) else {
                    throw LightsError.noSuchScene(scene)
                }
                let results = try await client.lightTargetWithSelector(.sceneID(found.id)).restoreState(duration: .seconds(duration))
                try LightCommand.report(results, json: options.json)
            }
        }
    }

    /// Runs an operation on the selected lights and reports each light's result.
    static func operate(_ options: LightOptions, _ operation: @escaping (LightTarget) async throws -> [LightResult]) async throws {
        let selector = try options.parsedSelector()
        try await options.withClient { client in
            try report(try await operation(client.lightTargetWithSelector(selector)), json: options.json)
        }
    }

    static func report(_ results: [LightResult], json: Bool) throws {
        for result in results {
            if json {
                try JSONOutput.print(result)
            } else {
                print("\(result.id)  \"\(result.label)\"  \(result.status.rawValue)")
            }
        }
        let failed = results.filter { $0.status != .ok }
        if !failed.isEmpty { throw LightOperationFailed(failed: failed.count, of: results.count) }
    }

    static func parseColor(_ text: String) -> LightColor? {
        let names: [String: Double] = ["red": 0, "orange": 30, "yellow": 60, "green": 120, "cyan": 180, "blue": 240, "purple": 280, "pink": 325]
        if text == "white" { return .white(kelvin: 3500) }
        if let hue = names[text] { return LightColor(hue: hue, saturation: 1) }
        if let rgb = RGBColor(hex: text) { return rgb.color().color }
        var hue: Double?
        var saturation = 1.0
        for part in text.split(separator: ",") {
            let pair = part.split(separator: ":", maxSplits: 1).map(String.init)
            guard pair.count == 2, let value = Double(pair[1]) else { return nil }
            switch pair[0] {
            case "hue" where (0...360).contains(value): hue = value
            case "saturation" where (0...1).contains(value): saturation = value
            default: return nil
            }
        }
        return hue.map { LightColor(hue: $0, saturation: saturation) }
    }
}

struct LightOperationFailed: Error, CustomStringConvertible {
    var failed: Int
    var of: Int
    var description: String { "\(failed) of \(of) light(s) did not take it" }
}
