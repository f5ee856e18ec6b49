readerScopes.add("fixture/call.py",[[5,6,"f","pallas_call","kernel spec",6]]);
