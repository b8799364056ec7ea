-- expect-exit: 1
-- expect-error: FILE:4: error object is a table value, not a string
-- An error object that is not a string is still reported clearly.
error({code = 42})
