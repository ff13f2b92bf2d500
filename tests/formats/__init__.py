"""The codecs of directory/formats: text in, plain data out, and back."""
