a = "double"
b = 'single'
c = """triple
double"""
d = '''triple
single'''
e = r"raw \n stays"
f = b"bytes\x00\xff"
g = rb"raw bytes \d"
h = "escapes: \n \t \\ \' \" \x41 \u00e9 \U0001F600 \101"
i = "implicit" ' concatenation' """ of three"""
j = B"upper prefix"
k = R'upper raw'
l = u"unicode prefix"
m = "line \
continuation"
n = "unicode: héllo wörld ∑"
