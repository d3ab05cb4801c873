import StrobeHost
