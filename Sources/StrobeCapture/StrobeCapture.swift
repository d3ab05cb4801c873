import StrobeHCI
