// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Strobe",
    platforms: [.macOS(.v15)],
    products: [
        // What an app embeds.
        .library(name: "Strobe", targets: ["Strobe"]),
        // The simulated world (virtual controllers, air, clock and the virtual-time driver).
        .library(name: "StrobeSim", targets: ["StrobeSim"]),
        // Lights in LIFXHTTPKit's model: LIFX LAN, the LIFX HTTP API, LEDnet Bluetooth lights.
        .library(name: "StrobeLights", targets: ["StrobeLights", "StrobeLightsHTTP"]),
        // The flash/shutter timing engine.
        .library(name: "StrobeSequencer", targets: ["StrobeSequencer"]),
        .executable(name: "strobe", targets: ["strobe"]),
        // The same tool without the LIFX HTTP API backend (no HTTP client, swift-nio or TLS): for
        // small devices, and what the kernel suite runs.
        .executable(name: "strobe-lite", targets: ["strobe-lite"]),
        .executable(name: "strobe-bench", targets: ["StrobeBench"]),
        // A Pandora gRPC server (Google's Bluetooth test interfaces) for the avatar conformance
        // suite: its own product, so nothing else links gRPC.
        .executable(name: "strobe-pandora", targets: ["strobe-pandora"]),
        // libFuzzer targets for every parser; built and run by Scripts/fuzz.sh.
        .executable(name: "strobe-fuzz", targets: ["StrobeFuzz"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/ordo-one/malloc-interposer", from: "1.6.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // `swift package generate-documentation --target Strobe`: the DocC catalog in Sources/Strobe.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The only C in the stack: the kernel's HCI socket, over the libbluetooth-dev headers.
        .target(name: "CBlueZ"),
        // What every layer shares: bytes and their readers, addresses, clocks and deadlines,
        // waiting (Waiter, broadcast, the serial gate), threads and errno.
        .target(name: "StrobeBase", dependencies: [.product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "StrobeHCI",
            dependencies: [
                "StrobeBase", "CBlueZ", .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(name: "StrobeCapture", dependencies: ["StrobeHCI", "StrobeHost", "StrobeSecurity", .product(name: "SystemPackage", package: "swift-system")]),
        .target(
            name: "StrobeHost",
            dependencies: ["StrobeHCI", "StrobeSecurity", .product(name: "Logging", package: "swift-log"), .product(name: "SystemPackage", package: "swift-system")],
            // The data the generated assigned-numbers table comes from (Scripts/generate-assigned-numbers.py).
            exclude: ["UUID/assigned-uuid16.tsv"]),
        .target(name: "StrobeDevices", dependencies: ["StrobeHost"]),
        .target(name: "StrobeSim", dependencies: ["Strobe", "StrobeLights", .product(name: "SystemPackage", package: "swift-system")]),
        // Lights in the model of LIFXHTTPKit, over the LIFX LAN protocol, the LIFX HTTP API and
        // Bluetooth LE (LEDnet) lights.
        .target(name: "StrobeLights", dependencies: ["StrobeHCI", "StrobeHost", .product(name: "SystemPackage", package: "swift-system")]),
        // The Security Manager: its cryptography on swift-crypto, the pairing state machine, keys.
        .target(
            name: "StrobeSecurity",
            dependencies: [
                "StrobeHCI", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        // The LIFX HTTP API backend, apart so that what needs no HTTP client does not build one.
        .target(
            name: "StrobeLightsHTTP",
            dependencies: ["StrobeLights", "StrobeHost", .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .target(name: "StrobeSequencer", dependencies: ["StrobeHCI", "StrobeHost", "StrobeDevices", "StrobeLights"]),
        // The front door (BluetoothHost, Peer) and the DocC catalog over everything it re-exports.
        .target(
            name: "Strobe",
            dependencies: ["StrobeHCI", "StrobeCapture", "StrobeHost", "StrobeDevices", "StrobeSecurity", "StrobeLights",
                           .product(name: "Logging", package: "swift-log")]),
        // The `strobe` tool's commands; its two executables differ only in the LIFX HTTP backend.
        .target(
            name: "StrobeCLI",
            dependencies: [
                "Strobe", "StrobeSim", "StrobeSequencer", "StrobeLights",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(name: "strobe", dependencies: ["StrobeCLI", "StrobeLightsHTTP"]),
        .executableTarget(name: "strobe-lite", dependencies: ["StrobeCLI"]),
        // Performance claims are made here and nowhere else: `swift run -c release strobe-bench`.
        .executableTarget(
            name: "StrobeBench",
            dependencies: [
                "Strobe", "StrobeSim", "StrobeSequencer", "StrobeLights",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ],
            path: "Benchmarks/StrobeBench"
        ),
        // The Pandora services over Strobe (the generated code comes from Protos through
        // Scripts/generate-pandora.sh), and the executable that serves them.
        .target(
            name: "StrobePandora",
            dependencies: [
                "Strobe", "StrobeSim",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Protos"]),
        .executableTarget(
            name: "strobe-pandora",
            dependencies: [
                "StrobePandora",
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Links without libFuzzer (the driver is a weak symbol) so a normal build stays whole.
        .target(name: "CFuzzerDriver", path: "Tests/Fuzz/CFuzzerDriver"),
        .executableTarget(
            name: "StrobeFuzz",
            dependencies: ["CFuzzerDriver", "StrobeHCI", "StrobeHost", "StrobeCapture", "StrobeDevices", "StrobeLights", "StrobeSecurity",
                           "StrobeSim"],
            path: "Tests/Fuzz/StrobeFuzz"),
        // What every test target shares: waiting on threads, pipes and child processes off the
        // cooperative pool.
        .target(name: "StrobeTestSupport", dependencies: ["StrobeBase"], path: "Tests/StrobeTestSupport"),
        .testTarget(name: "StrobeHCITests", dependencies: ["StrobeHCI", "StrobeTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "StrobeCaptureTests", dependencies: ["StrobeTestSupport", "StrobeCapture"]),
        .testTarget(name: "StrobeHostTests", dependencies: ["StrobeTestSupport", "StrobeHost"]),
        .testTarget(name: "StrobeDevicesTests", dependencies: ["StrobeTestSupport", "StrobeDevices"]),
        .testTarget(name: "StrobeSecurityTests", dependencies: ["StrobeTestSupport", "StrobeSecurity"]),
        .testTarget(name: "StrobeLightsTests", dependencies: ["StrobeTestSupport", "StrobeLights", "StrobeSim"]),
        .testTarget(name: "StrobeSimTests", dependencies: ["StrobeTestSupport", "StrobeSim", "StrobeCapture"]),
        .testTarget(name: "StrobeSequencerTests", dependencies: ["StrobeTestSupport", "StrobeSequencer", "StrobeSim", "StrobeCapture", "StrobeLights"]),
        .testTarget(name: "StrobeTests", dependencies: ["StrobeTestSupport", "Strobe", "StrobeSim"]),
        .testTarget(
            name: "StrobePandoraTests",
            dependencies: [
                "StrobePandora", "strobe-pandora", "StrobeTestSupport",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]),
        .testTarget(
            name: "StrobeInteropTests",
            dependencies: [
                "Strobe", "StrobeSim", "StrobeSequencer", "StrobeLights", "StrobeLightsHTTP", "StrobeCLI", "strobe", "strobe-lite",
                "StrobeTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
