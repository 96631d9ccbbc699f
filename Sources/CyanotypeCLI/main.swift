print("cyanotype")
