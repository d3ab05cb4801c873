import Logging

extension Logger {
    /// The stack's logger when the app gives none: it drops everything, whatever the process's
    /// `LoggingSystem` does, so an embedded Strobe says nothing until asked.
    public static let strobeQuiet = Logger(label: "strobe", factory: { _ in SwiftLogNoOpLogHandler() })
}
