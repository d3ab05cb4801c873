import Testing
import StrobeHost

/// A bearer's ATT_MTU, driven by scripted inputs: no channel, no peer.
@Suite struct ATTMTUExchangeTests {
    @Test func theClientExchangeGoesOnceAndTheSmallerMTUTakesEffect() {
        var exchange = ATTMTUExchange(localMTU: 247)
        #expect(exchange.mtu == 23, "23 until an exchange completes")
        #expect(exchange.startClientExchange() == .send(ATTExchangeMTURequest(clientRxMTU: 247)))
        #expect(exchange.startClientExchange() == .startedBefore(mtu: 23), "once per connection, answered or not")
        exchange.exchangeEnded(ATTExchangeMTUResponse(serverRxMTU: 185))
        #expect(exchange.mtu == 185)
        #expect(exchange.startClientExchange() == .startedBefore(mtu: 185))
    }

    @Test func aServerWithALargerMTUGetsOurs() {
        var exchange = ATTMTUExchange(localMTU: 100)
        _ = exchange.startClientExchange()
        exchange.exchangeEnded(ATTExchangeMTUResponse(serverRxMTU: 517))
        #expect(exchange.mtu == 100)
    }

    @Test func anExchangeWithoutAResponseLeavesTheDefault() {
        var exchange = ATTMTUExchange(localMTU: 247)
        _ = exchange.startClientExchange()
        exchange.exchangeEnded(nil)
        #expect(exchange.mtu == 23)
    }

    @Test func aPeerClaimingLessThanTheDefaultLeavesTheDefault() {
        var exchange = ATTMTUExchange(localMTU: 247)
        _ = exchange.startClientExchange()
        exchange.exchangeEnded(ATTExchangeMTUResponse(serverRxMTU: 5))
        #expect(exchange.mtu == 23)
        var server = ATTMTUExchange(localMTU: 247)
        #expect(server.requestReceived(ATTExchangeMTURequest(clientRxMTU: 0)) == ATTExchangeMTUResponse(serverRxMTU: 247))
        #expect(server.mtu == 23)
    }

    @Test func thePeersRequestIsAnsweredWithOursAndTakesEffectAtOnce() {
        var exchange = ATTMTUExchange(localMTU: 247)
        #expect(exchange.requestReceived(ATTExchangeMTURequest(clientRxMTU: 512)) == ATTExchangeMTUResponse(serverRxMTU: 247))
        #expect(exchange.mtu == 247)
        // The peer's exchange is its own: ours may still go, once.
        #expect(exchange.startClientExchange() == .send(ATTExchangeMTURequest(clientRxMTU: 247)))
    }
}
