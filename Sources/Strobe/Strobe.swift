@_exported import StrobeHCI
@_exported import StrobeCapture
@_exported import StrobeHost
@_exported import StrobeDevices
@_exported import StrobeSim
@_exported import StrobeSequencer
