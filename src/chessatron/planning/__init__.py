"""The planning core, pure logic with no I/O: the table's layout (:mod:`.layout`), where every physical
piece stands (:mod:`.table`), drag paths that keep clear of other pieces (:mod:`.paths`), chess moves as
ordered drags (:mod:`.planner`), resets to any arrangement (:mod:`.reset`), how long it all takes
(:mod:`.timing`), and plans as GRBL programs (:mod:`.gcode`, read back by :mod:`.gcode_parse`)."""
