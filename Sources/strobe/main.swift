import Strobe
print("strobe")
