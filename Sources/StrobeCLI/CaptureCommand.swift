import ArgumentParser

/// `strobe capture`: work with btsnoop files (no controller needed).
struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture", abstract: "Read btsnoop captures (datalinks 1001, 1002 and 2001).",
        subcommands: [CaptureInfoCommand.self, CaptureDecodeCommand.self, CaptureShowCommand.self])
}
