// What an app embeds: transports, HCI, the host stack (L2CAP, ATT, GATT client and server,
// connections, scanning, pairing and bonds), captures, and the device kits. The simulated world (`StrobeSim`, with
// its process-wide virtual-time executor) and the flash/shutter sequencer (`StrobeSequencer`) are
// products of their own.
@_exported import StrobeHCI
@_exported import StrobeCapture
@_exported import StrobeHost
@_exported import StrobeDevices
@_exported import StrobeSecurity
