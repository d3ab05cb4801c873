import Testing
@testable import StrobeCapture

@Test func placeholderStrobeCaptureTests() { #expect(Bool(true)) }
