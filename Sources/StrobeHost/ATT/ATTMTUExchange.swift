/// A bearer's ATT_MTU (Core Vol 3, Part F, 3.4.2), as a machine without I/O: 23 until an
/// exchange completes, whichever side asks; then the smaller of the two receive MTUs, never
/// below 23 (a side that claims less than the default leaves the default). The client's
/// exchange goes once per connection. Inputs from the owner (`ATTBearer`): the client's start,
/// the peer's request, the end of our request; out: the PDU to send, or the MTU in effect.
package struct ATTMTUExchange: Sendable {
    /// Our receive MTU, announced in either role.
    package let localMTU: Int
    /// The ATT_MTU in effect.
    package private(set) var mtu = ATTMTU.minimum
    private var clientExchangeStarted = false

    /// How the client's exchange starts.
    package enum ClientStart: Equatable, Sendable {
        /// The first: send this request; its end goes to `exchangeEnded`.
        case send(ATTExchangeMTURequest)
        /// Started before (answered or not): nothing to send, this MTU in effect now.
        case startedBefore(mtu: Int)
    }

    package init(localMTU: Int) {
        self.localMTU = localMTU
    }

    /// The client's Exchange MTU Request, once per connection.
    package mutating func startClientExchange() -> ClientStart {
        guard !clientExchangeStarted else { return .startedBefore(mtu: mtu) }
        clientExchangeStarted = true
        return .send(ATTExchangeMTURequest(clientRxMTU: UInt16(localMTU)))
    }

    /// The peer, as client, sent its receive MTU: the response to send, and the MTU takes effect.
    package mutating func requestReceived(_ request: ATTExchangeMTURequest) -> ATTExchangeMTUResponse {
        mtu = ATTMTU.effective(client: Int(request.clientRxMTU), server: localMTU)
        return ATTExchangeMTUResponse(serverRxMTU: UInt16(localMTU))
    }

    /// Our request ended: with the server's response (its MTU takes effect, before any later
    /// request goes), or without one (refused, malformed, timed out: the MTU stays).
    package mutating func exchangeEnded(_ response: ATTExchangeMTUResponse?) {
        guard let response else { return }
        mtu = ATTMTU.effective(client: localMTU, server: Int(response.serverRxMTU))
    }
}
