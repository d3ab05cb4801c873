import Foundation

/// Where the tool writes: standard output and standard error, or two buffers when a test runs a
/// command inside its own process (in virtual time, several at once). A task-local, so that
/// every task of one command, and only those, write to its buffers.
package struct ToolOutput: Sendable {
    @TaskLocal package static var current = ToolOutput.standard

    package let output: @Sendable (String) -> Void
    package let error: @Sendable (String) -> Void

    package init(output: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void) {
        self.output = output
        self.error = error
    }

    /// The process's standard output and standard error.
    package static let standard = ToolOutput(
        output: { Swift.print($0, terminator: "") },
        error: { FileHandle.standardError.write(Data($0.utf8)) })
}

/// The tool's `print`: to `ToolOutput.current`'s output.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    ToolOutput.current.output(items.map { "\($0)" }.joined(separator: separator) + terminator)
}

/// Writes `text` as it is to `ToolOutput.current`'s error.
func printError(_ text: String) {
    ToolOutput.current.error(text)
}
