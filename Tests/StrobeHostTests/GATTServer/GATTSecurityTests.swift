import StrobeHCI
import StrobeSecurity
import StrobeBase
import Synchronization
import Testing

import StrobeHost

/// Attributes that need an encrypted or authenticated link, the errors the server answers with,
/// and the client's escalation and single retry.
@Suite(.timeLimit(.minutes(1))) struct GATTSecurityTests {
    static let service = BluetoothUUID("8D1E0101-3B5A-4C6E-9F00-5A7B0BE0C0DE")
    static let secret = BluetoothUUID("8D1E0102-3B5A-4C6E-9F00-5A7B0BE0C0DE")

    final class Link: Sendable {
        let security = Lock(GATTLinkSecurity(level: .none, bonded: false))
        let escalations = Lock<[ATTErrorCode]>([])
    }

    static func makePair(requires: SMPSecurityLevel, link: Link) -> (client: GATTClient, bearer: ATTBearer, value: AttributeHandle) {
        let database = GATTAttributeDatabase()
        database.addPrimaryService(service)
        let characteristic = database.addCharacteristic(secret, properties: [.read, .write, .notify], value: [0x5E], security: requires)
        let toServer = PipeChannel(), toClient = PipeChannel()
        let serverBearer = ATTBearer(channel: toClient)
        _ = GATTServerConnection(database: database, bearer: serverBearer) { link.security.withLock { $0 } }
        let bearer = ATTBearer(channel: toServer)
        toServer.deliver { pdu in pdu.withUnsafeBytes { serverBearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        toClient.deliver { pdu in pdu.withUnsafeBytes { bearer.receive($0, at: HostTime(nanoseconds: 0)) } }
        return (GATTClient(bearer: bearer), bearer, characteristic.valueHandle)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var requires: SMPSecurityLevel
        var link: GATTLinkSecurity
        var expected: ATTErrorCode?
        var testDescription: String { "\(requires) on \(link.level)\(link.bonded ? " (bonded)" : "") -> \(expected.map { "\($0)" } ?? "ok")" }
    }

    static let rows: [Row] = [
        Row(requires: .unauthenticated, link: .init(level: .none, bonded: false), expected: .insufficientAuthentication),
        Row(requires: .unauthenticated, link: .init(level: .none, bonded: true), expected: .insufficientEncryption),
        Row(requires: .unauthenticated, link: .init(level: .unauthenticated, bonded: true), expected: nil),
        Row(requires: .authenticated, link: .init(level: .unauthenticated, bonded: true), expected: .insufficientAuthentication),
        Row(requires: .authenticated, link: .init(level: .secureConnections, bonded: true), expected: nil),
        Row(requires: .secureConnections, link: .init(level: .authenticated, bonded: true), expected: .insufficientAuthentication),
        Row(requires: .none, link: .init(level: .none, bonded: false), expected: nil),
    ]

    @Test(arguments: rows)
    func theServerAnswersWithTheSpecsError(_ row: Row) async throws {
        let link = Link()
        link.security.withLock { $0 = row.link }
        let pair = Self.makePair(requires: row.requires, link: link)
        for operation in ["read", "write", "subscribe"] {
            do {
                switch operation {
                case "read": #expect(try await pair.client.read(handle: pair.value) == [0x5E])
                case "write": try await pair.client.write([1], handle: pair.value)
                default: try await pair.client.write([1, 0], handle: pair.value.advanced(by: 1))  // its CCCD
                }
                #expect(row.expected == nil, "\(operation) was allowed")
            } catch {
                guard case .att(let error) = error else { throw error }
                #expect(error.code == row.expected, "\(operation)")
            }
        }
    }

    @Test func theClientSecuresTheLinkAndRetriesOnce() async throws {
        let link = Link()
        let pair = Self.makePair(requires: .authenticated, link: link)
        pair.bearer.setSecurityEscalation { code in
            link.escalations.withLock { $0.append(code) }
            link.security.withLock { $0 = GATTLinkSecurity(level: .authenticated, bonded: true) }
        }
        #expect(try await pair.client.read(handle: pair.value) == [0x5E])
        #expect(link.escalations.withLock { $0 } == [.insufficientAuthentication])
        // Secured now: no more escalation.
        try await pair.client.write([2], handle: pair.value)
        #expect(link.escalations.withLock { $0 }.count == 1)
    }

    @Test func aLinkThatCannotBeSecuredFailsWithWhy() async throws {
        let link = Link()
        let pair = Self.makePair(requires: .authenticated, link: link)
        pair.bearer.setSecurityEscalation { _ in throw SecurityError.insufficientLevel(reached: .unauthenticated, required: .authenticated) }
        await #expect(throws: StrobeError.security(SecurityError.insufficientLevel(reached: .unauthenticated, required: .authenticated))) {
            try await pair.client.read(handle: pair.value)
        }
    }

    @Test func aRetryRefusedAgainIsNotRetriedTwice() async throws {
        let link = Link()
        let pair = Self.makePair(requires: .authenticated, link: link)
        // The escalation "succeeds" but leaves the link as it was.
        pair.bearer.setSecurityEscalation { code in link.escalations.withLock { $0.append(code) } }
        let error = await #expect(throws: StrobeError.self) { try await pair.client.read(handle: pair.value) }
        #expect(error?.layer == "att")
        #expect(link.escalations.withLock { $0 }.count == 1)
    }
}
