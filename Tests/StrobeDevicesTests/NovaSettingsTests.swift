import Testing
import StrobeDevices

@Suite struct NovaSettingsTests {
    @Test func presetsCarryTheReferenceValues() {
        #expect(NovaFlashSettings.off == NovaFlashSettings(warm: 0, cool: 0, timeoutMilliseconds: 0))
        #expect(NovaFlashSettings.gentle == NovaFlashSettings(warm: 127, cool: 0, timeoutMilliseconds: 500))
        #expect(NovaFlashSettings.warm == NovaFlashSettings(warm: 255, cool: 20, timeoutMilliseconds: 500))
        #expect(NovaFlashSettings.full == NovaFlashSettings(warm: 255, cool: 255, timeoutMilliseconds: 500))
        #expect(NovaFlashSettings.custom(warm: 3, cool: 4) == NovaFlashSettings(warm: 3, cool: 4, timeoutMilliseconds: 500))
    }

    @Test(arguments: [
        // brightness, colour temperature, warm, cool
        (1.0, 0.5, UInt8(255), UInt8(255)),
        (1.0, 0.0, 255, 0),
        (1.0, 1.0, 0, 255),
        (0.5, 0.0, 128, 0),
        (1.0, 0.25, 255, 85),
        (0.6, 0.75, 51, 153),
        (0.0, 0.3, 0, 0),
        (2.0, -1.0, 255, 0),
        (Double.nan, 0.5, 0, 0),
        (1.0, Double.nan, 255, 0),
    ])
    func brightnessAndColourTemperatureMapOntoTheTwoBanks(brightness: Double, temperature: Double, warm: UInt8, cool: UInt8) {
        let settings = NovaFlashSettings.custom(brightness: brightness, colorTemperature: temperature)
        #expect(settings.warm == warm)
        #expect(settings.cool == cool)
        #expect(settings.timeoutMilliseconds == NovaFlashSettings.defaultTimeoutMilliseconds)
    }

    @Test func timeoutIsClampedToSixteenBitsOfMilliseconds() {
        #expect(NovaFlashSettings.full.withTimeout(.milliseconds(1500)).timeoutMilliseconds == 1500)
        #expect(NovaFlashSettings.full.withTimeout(.microseconds(2999)).timeoutMilliseconds == 2)
        #expect(NovaFlashSettings.full.withTimeout(.milliseconds(65535)).timeoutMilliseconds == 65535)
        #expect(NovaFlashSettings.full.withTimeout(.seconds(70)).timeoutMilliseconds == 65535)
        #expect(NovaFlashSettings.full.withTimeout(.seconds(-1)).timeoutMilliseconds == 0)
        #expect(NovaFlashSettings(warm: 1, cool: 1, timeoutMilliseconds: 250).timeout == .milliseconds(250))
    }

    @Test func emptyLightsAreSentAsOff() {
        #expect(NovaCommand.flash(.off).normalized == .off)
        #expect(NovaCommand.flash(NovaFlashSettings(warm: 0, cool: 0, timeoutMilliseconds: 100)).normalized == .off)
        #expect(NovaCommand.flash(NovaFlashSettings(warm: 9, cool: 9, timeoutMilliseconds: 0)).normalized == .off)
        #expect(NovaCommand.flash(.gentle).normalized == .flash(.gentle))
        #expect(NovaCommand.flash(.off).encoded(for: .v1, requestID: 3) == ascii("(03:O)"))
        #expect(NovaCommand.flash(.full.withTimeout(.zero)).encoded(for: .v2, requestID: 3) == [3, 0, 0, 3])
    }

    @Test(arguments: [
        (Int8(-60), 0.6), (-40, 1.0), (-20, 1.0), (-65, 0.5), (-90, 0.0), (-100, 0.0), (-128, 0.0), (127, 0.0),
    ])
    func signalStrength(rssi: Int8, expected: Double) {
        #expect(abs(NovaSignalStrength.fraction(rssi: rssi) - expected) < 1e-9)
    }

    @Test func localNamesSelectTheModel() {
        #expect(NovaProfile.model(forLocalName: "Nova") == .v1)
        #expect(NovaProfile.model(forLocalName: "Noon") == .v1)
        #expect(NovaProfile.model(forLocalName: "S-Power") == .v1)
        #expect(NovaProfile.model(forLocalName: "Nova2") == .v2)
        #expect(NovaProfile.model(forLocalName: "Novak") == nil)
        #expect(NovaModel.v2.requestCharacteristic == "EFF1")
        #expect(NovaModel.v1.responseCharacteristic == "FFF4")
    }

    @Test func requestIDsWrapAtTheirWidth() {
        #expect(NovaModel.v1.requestID(after: 254) == 255)
        #expect(NovaModel.v1.requestID(after: 255) == 0)
        #expect(NovaModel.v2.requestID(after: 255) == 256)
        #expect(NovaModel.v2.requestID(after: 65535) == 0)
    }
}
