// The baseline of bench/http.mjs: Express 5 with nothing but express.json() and a handler that
// answers 201 with the body it was sent. Whatever the reference server costs beyond this is the
// price of signatures, spec validation, normalization, the database and logging.
import express from 'express';

const app = express();
app.post('/api/v1/external/users', express.json(), (req, res) => {
  res.status(201).json(req.body);
});
app.listen(Number(process.env.PORT), '127.0.0.1');
