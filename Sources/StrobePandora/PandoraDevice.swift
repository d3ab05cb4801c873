import Logging
import Strobe
import StrobeBase
import Synchronization

/// The device under test behind the Pandora services: the transport it was started on, the
/// stack opened on it now, and what outlives a reset (the static random address, the pairing
/// runner). FactoryReset closes the stack and opens a new one; bonds go with it, Reset keeps them.
final class PandoraDevice: Sendable {
    let spec: TransportSpec
    let logger: Logger
    /// The static random address the device connects and advertises from (two top bits set).
    let randomAddress: BluetoothAddress
    let pairing: PandoraPairing
    private let current = CurrentStack()
    /// One open or reset at a time.
    private let resetting = AsyncSerialGate()

    init(spec: TransportSpec, logger: Logger) {
        self.spec = spec
        self.logger = logger
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255) }
        bytes[5] |= 0xC0
        randomAddress = BluetoothAddress(wireBytes: bytes)!
        let current = current
        pairing = PandoraPairing { peer in current.stack?.cookie(forPeer: peer) }
    }

    /// The stack, opened the first time.
    func stack() async throws -> PandoraStack {
        if let stack = current.stack { return stack }
        return try await resetting.run {
            if let stack = self.current.stack { return stack }
            return try await self.open(bonds: InMemoryBondStore())
        }
    }

    /// Closes the stack (every link, scan and advertisement with it) and opens it again, the
    /// controller reset; `keepingBonds` keeps the bond store (Reset) or empties it (FactoryReset).
    func reset(keepingBonds: Bool) async throws {
        try await resetting.run {
            let old = self.current.take()
            self.pairing.cancelQuestions()
            old?.close()
            let bonds = keepingBonds ? (old?.bonds ?? InMemoryBondStore()) : InMemoryBondStore()
            _ = try await self.open(bonds: bonds)
        }
    }

    private func open(bonds: InMemoryBondStore) async throws -> PandoraStack {
        let stack = try await PandoraStack.open(spec, randomAddress: randomAddress, bonds: bonds, pairing: pairing, logger: logger)
        current.stack = stack
        logger.info("stack open", metadata: ["public": "\(stack.publicAddress.map { "\($0)" } ?? "?")", "random": "\(randomAddress)"])
        return stack
    }

    func close() {
        current.stack?.close()
    }
}

/// The stack open now, if any.
private final class CurrentStack: Sendable {
    private let value = Lock<PandoraStack?>(nil)

    var stack: PandoraStack? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }

    func take() -> PandoraStack? {
        value.withLock { s in
            defer { s = nil }
            return s
        }
    }
}
