import StrobeHost

extension StrobeError {
    /// The security layer's error, when this is one: what pairing and encryption tests compare.
    var securityError: SecurityError? { if case .security(let error) = self { error } else { nil } }
    /// Whether the ATT bearer failed (closed, timed out, a malformed answer).
    var isBearerError: Bool { if case .bearer = self { true } else { false } }
}
